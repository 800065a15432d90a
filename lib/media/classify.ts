import type { MediaType } from "../../db/schema/media";

/** The dominant media type of a detected MIME type, or null for anything that is not media. */
export function dominantType(mime: string): MediaType | null {
  const top = mime.split("/")[0];
  return top === "image" || top === "video" || top === "audio" ? top : null;
}

export type Aspect = "square" | "portrait" | "landscape";

/**
 * Square when the longer side is at most 2 % longer than the shorter (a 1080×1100 crop is square to a
 * person). Must agree with the generated `aspect` column of db/schema/media.ts.
 */
export function aspectOf(width: number | null, height: number | null): Aspect | null {
  if (!width || !height || width <= 0 || height <= 0) return null;
  if (Math.max(width, height) * 50 <= Math.min(width, height) * 51) return "square";
  return width > height ? "landscape" : "portrait";
}

/** Clockwise rotation in degrees (0, 90, 180, 270) of an ISO BMFF display matrix (16.16 fixed point a, b). */
export function rotationOfMatrix(matrix: ArrayLike<number> | undefined): number {
  if (!matrix || matrix.length < 2) return 0;
  const degrees = Math.round((Math.atan2(matrix[1], matrix[0]) * 180) / Math.PI);
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

/** Clockwise rotation that an EXIF orientation (1–8) asks for; mirrored orientations count by their turn. */
export function rotationOfExif(orientation: number | undefined): number {
  switch (orientation) {
    case 3:
    case 4:
      return 180;
    case 5:
    case 6:
      return 90;
    case 7:
    case 8:
      return 270;
    default:
      return 0;
  }
}

/** Width and height as displayed: a quarter turn swaps them. */
export function displayed(width: number, height: number, rotation: number): { width: number; height: number } {
  return rotation === 90 || rotation === 270 ? { width: height, height: width } : { width, height };
}
