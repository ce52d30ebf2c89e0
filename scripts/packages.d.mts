export const packagesDir: string;
export const SECCOMP_ARCHES: readonly string[];
export const EDITOR_TARGETS: readonly string[];
export const CLI_NPM_NAME: string;
export function seccompPackageName(arch: string): string;
export function targetPackage(target: string): { file: string; sandbox: boolean; seccompArch: string | undefined };
export function hostTarget(): string;
