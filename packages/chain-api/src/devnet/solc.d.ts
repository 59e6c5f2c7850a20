// solc-js ships no type declarations; this is the part compile.ts uses.
declare module 'solc' {
  type ImportResult = { contents: string } | { error: string };
  const solc: {
    compile(input: string, callbacks?: { import: (path: string) => ImportResult }): string;
    version(): string;
  };
  export default solc;
}
