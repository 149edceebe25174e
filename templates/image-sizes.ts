/**
 * The article column (`.article-container`): the viewport less its margins, 50rem at most.
 * A module of its own: the theme's image settings read it, and so does the article's view,
 * whose module is a template's part (an edit to the view is not an edit to the images).
 */
export const IMAGE_SIZES = "(min-width: 52rem) 50rem, calc(100vw - 2rem)";
