import { createFile, MP4BoxBuffer, type Movie } from "mp4box";

/**
 * The movie description of an MP4 / MOV file, read by mp4box (GPAC's ISO BMFF parser) from the whole
 * buffer, so a file whose `moov` follows its `mdat` (no faststart) reads as well. Null when the bytes do
 * not hold a readable movie.
 */
export function readMovie(bytes: Uint8Array): Movie | null {
  const file = createFile();
  let movie: Movie | null = null;
  file.onReady = (info) => {
    movie = info;
  };
  file.onError = () => {
    movie = null;
  };
  // mp4box reports every box it does not know (QuickTime's ©swr …) through console.error, and has no
  // quieter level. Parsing is synchronous, so muting it for exactly this call touches nothing else.
  const consoleError = console.error;
  console.error = () => {};
  try {
    // mp4box wants an ArrayBuffer that starts at the file's first byte.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : bytes.slice().buffer;
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(own, 0));
    file.flush();
  } catch {
    return null;
  } finally {
    console.error = consoleError;
  }
  return movie;
}
