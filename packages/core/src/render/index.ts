// The renderers shared by the exports, the print view and the browser page. Written for every
// runtime (no Node API): the browser bundle takes them from here (`@nbserve/core/render`).
export { ansiToHtml } from './ansi-html.js';
export {
  type Attachments,
  type ImagePolicy,
  type MarkdownOptions,
  type MathOutput,
  type RawHtmlPolicy,
  type RefusedUrlForm,
  renderLatex,
  renderMarkdown,
} from './markdown-html.js';
