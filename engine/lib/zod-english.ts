// zod's index of its locales as the launcher bundles it when no code of the site names them
// (engine/launch.mjs, ZOD_ENGLISH): English only, the default zod sets itself.
export { default as en } from "zod/v4/locales/en.js";
