/**
 * A channel's email address (Zulip's encode_email_address): the channel name as an ASCII slug
 * when it survives the conversion whole, then the token, then `.show-sender`, placed into the
 * gateway pattern. No pattern, no address.
 */
export function encodeChannelEmail(pattern: string, channelName: string, token: string, showSender: boolean): string {
  if (pattern === '') return '';
  const name = channelName.replace(/[^\p{L}\p{N}_]+/gu, '-');
  const slug = djangoSlugify(name);
  const encodedName = [...slug].length === [...name].length ? slug : '';
  let local = encodedName ? `${encodedName}.${token}` : token;
  if (showSender) local += '.show-sender';
  return pattern.replace('%s', local);
}

/** Django's slugify: ASCII only, lower case, punctuation dropped, runs of spaces/hyphens as one hyphen. */
export function djangoSlugify(value: string): string {
  const ascii = value
    .normalize('NFKD')
    .replace(/[^\t\n\r -~]/g, '')
    .toLowerCase()
    .replace(/[^\w\s-]/g, '');
  return ascii.replace(/[-\s]+/g, '-').replace(/^[-_]+|[-_]+$/g, '');
}
