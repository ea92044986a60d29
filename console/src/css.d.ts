// Style sheets are bundled by esbuild; importing one yields nothing.
declare module '*.css'
