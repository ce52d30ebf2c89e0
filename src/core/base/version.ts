// The product's version, read from package.json at build time (esbuild inlines the one field).
import { version } from '../../../package.json';

export const PRODUCT_VERSION: string = version;
