/** class-transformer's metadata storage, which its package ships (cjs/storage.js) without typing the path. */
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
