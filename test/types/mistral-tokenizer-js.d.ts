declare module 'mistral-tokenizer-js' {
  const mistralTokenizer: {
    encode(prompt: string, addBosToken?: boolean, addPrecedingSpace?: boolean): number[];
    decode(tokens: number[]): string;
  };
  export default mistralTokenizer;
}
