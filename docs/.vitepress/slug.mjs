// One heading-to-anchor rule for the whole site, GitHub's (the READMEs' links are written for it,
// and TypeDoc's Markdown output follows it too): lower case, punctuation other than - and _ removed,
// spaces to hyphens; Arabic letters and marks kept. VitePress uses it for every heading
// (config.mts) and scripts/build.mjs to repair generated links that point at no heading.

/** @param {string} text the heading's text */
export function slugify(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}
