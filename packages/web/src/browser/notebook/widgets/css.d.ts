/** Style sheets imported as text (`with { type: 'text' }`), injected when widgets first render. */
declare module '*.css' {
  const text: string;
  export default text;
}
