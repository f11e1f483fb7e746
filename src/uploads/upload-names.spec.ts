import { contentDisposition, sanitizeName, uploadContentType } from './upload-names';

describe('sanitizeName (Zulip sanitize_name)', () => {
  it.each([
    ['my file (1).txt', 'my-file-1.txt'],
    ['résumé café.pdf', 'résumé-café.pdf'],
    ['a -- b.txt', 'a-b.txt'],
    ['under_score_.txt', 'under_score_.txt'],
    ['../../etc/passwd', '....etcpasswd'],
    ['???', 'uploaded-file'],
    ['.', 'uploaded-file'],
    ['..', 'uploaded-file'],
    ['', 'uploaded-file'],
    ['ﬁle.txt', 'file.txt'],
    ['a\u0000b\\c.txt', 'abc.txt'],
  ])('%j → %j', (input, output) => expect(sanitizeName(input)).toBe(output));
});

describe('uploadContentType', () => {
  it('keeps a well-formed declared type, guesses otherwise', () => {
    expect(uploadContentType('Image/PNG; q=1', 'x')).toBe('image/png');
    expect(uploadContentType('application/octet-stream', 'a.pdf')).toBe('application/pdf');
    expect(uploadContentType('nonsense', 'a.unknown')).toBe('application/octet-stream');
    expect(uploadContentType(undefined, 'a.JPG')).toBe('image/jpeg');
  });
});

describe('contentDisposition', () => {
  it('quotes ASCII names and RFC 8187-encodes others', () => {
    expect(contentDisposition('1/ab/a "b".png', true)).toBe('inline; filename="a \\"b\\".png"');
    expect(contentDisposition('1/ab/ü.txt', false)).toBe("attachment; filename*=utf-8''%C3%BC.txt");
  });
});
