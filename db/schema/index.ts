export * from "./identity";
export * from "./platform";
export * from "./analytics";
export * from "./accounts";
export * from "./media-usage";
export * from "./publications";
