// Excerpt: the one line a Docusaurus site adds to its configuration, so that every page has
// embed.js; an .mdx page then needs only its <div ... />s (phi.mdx).
export default {
  scripts: [{ src: 'https://your.host/vigil/embed.js', async: true }],
};
