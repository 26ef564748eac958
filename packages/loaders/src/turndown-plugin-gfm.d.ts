// @joplin/turndown-plugin-gfm ships no types: the part of its CommonJS export used here.
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  const plugin: { gfm: TurndownService.Plugin; tables: TurndownService.Plugin; strikethrough: TurndownService.Plugin; taskListItems: TurndownService.Plugin };
  export default plugin;
}
