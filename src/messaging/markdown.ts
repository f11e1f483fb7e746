// The renderer is its own leaf module (src/markdown) so that channels, users and realm can render
// descriptions too; messaging code imports it through this path.
export * from '../markdown';
