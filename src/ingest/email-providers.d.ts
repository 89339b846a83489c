/** `email-providers` (ISC): domains of public e-mail providers, lower-case. The package ships no types. */
declare module 'email-providers' {
  const domains: string[];
  export default domains;
}
