/**
 * The client entry: finds the islands the server rendered and hydrates each with the same
 * React component, loading React only when an island first needs it.
 */
import { loadIslands } from "./islands-loader.js";

loadIslands(document);
