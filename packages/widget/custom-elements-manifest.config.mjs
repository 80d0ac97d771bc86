// custom-elements.json for IDEs and docs tools, generated from the classes' JSDoc (@summary @event @csspart
// @cssproperty) and Lit properties.
export default {
  globs: ['src/**/*.ts'],
  outdir: 'dist',
  litelement: true,
  dependencies: false,
  packagejson: false,
};
