/** One model of the models.dev snapshot: id, context length, output cap (0: none stated), release date. */
export type CatalogRow = readonly [id: string, contextLength: number, outputCap: number, releaseDate: string];
