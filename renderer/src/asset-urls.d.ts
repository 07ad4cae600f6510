// Vite's `?url` imports (renderer/vite.config.ts): the URL of the emitted file. The
// PDF viewer loads pdf.js's worker this way, from the app itself.
declare module '*?url' {
  const url: string;
  export default url;
}
