/** Placeholder replaced by the interactive reference page (see issue 2, item 4). */
export function docsPage(specUrl: string, title: string): string {
  return `<!doctype html><title>${title}</title><p>OpenAPI document: <a href="${specUrl}">${specUrl}</a></p>`;
}
