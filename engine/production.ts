/**
 * React's production build, unless the environment says otherwise. Imported first by the
 * engine's public face (index.ts), before anything loads React: React picks its build when
 * it is first loaded, and its development build renders several times slower.
 */
process.env.NODE_ENV ??= "production";
export {};
