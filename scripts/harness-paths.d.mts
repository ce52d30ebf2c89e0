export const repoRoot: string;
export const harnessSpecDir: string;
export const cacheDir: string;
export const harnessDir: string;
export const node24: string;
export const codeServerEntry: string;
export const chromiumPath: string;
export const artifactsDir: string;
