/**
 * Readable names for the RFC 6381 codec strings an MP4 / MOV parser reports (`avc1.42c00a`,
 * `mp4a.40.2`): the codec family and, for video, its profile.
 */

const VIDEO: Record<string, string> = {
  avc1: "h264",
  avc3: "h264",
  hvc1: "hevc",
  hev1: "hevc",
  av01: "av1",
  vp08: "vp8",
  vp09: "vp9",
  mp4v: "mpeg4",
  apch: "prores",
  apcn: "prores",
  apcs: "prores",
  apco: "prores",
  ap4h: "prores",
  ap4x: "prores",
  jpeg: "mjpeg",
  mjpa: "mjpeg",
};

const AUDIO: Record<string, string> = {
  "ac-3": "ac3",
  "ec-3": "eac3",
  opus: "opus",
  Opus: "opus",
  fLaC: "flac",
  alac: "alac",
  sowt: "pcm",
  twos: "pcm",
  lpcm: "pcm",
  ipcm: "pcm",
  ulaw: "pcm_mulaw",
  alaw: "pcm_alaw",
};

const H264_PROFILES: Record<number, string> = {
  66: "Baseline",
  77: "Main",
  88: "Extended",
  100: "High",
  110: "High 10",
  122: "High 4:2:2",
  244: "High 4:4:4 Predictive",
  44: "CAVLC 4:4:4",
};

export function videoCodecName(codec: string): string {
  const fourcc = codec.split(".")[0];
  return VIDEO[fourcc] ?? fourcc.toLowerCase();
}

export function videoProfile(codec: string): string | null {
  const [fourcc, ...rest] = codec.split(".");
  const family = VIDEO[fourcc];
  if (family === "h264" && /^[0-9a-f]{6}$/i.test(rest[0] ?? "")) {
    const idc = parseInt(rest[0].slice(0, 2), 16);
    const constraints = parseInt(rest[0].slice(2, 4), 16);
    if (idc === 66 && constraints & 0x40) return "Constrained Baseline";
    return H264_PROFILES[idc] ?? `profile ${idc}`;
  }
  if (family === "hevc" && rest[0]) {
    const idc = Number(rest[0].replace(/^[A-C]/, ""));
    return ({ 1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Format Range Extensions" } as Record<number, string>)[idc] ?? null;
  }
  if (family === "av1" && rest[0] !== undefined) return ({ 0: "Main", 1: "High", 2: "Professional" } as Record<number, string>)[Number(rest[0])] ?? null;
  if (family === "vp9" && rest[0] !== undefined) return `Profile ${Number(rest[0])}`;
  return null;
}

export function audioCodecName(codec: string): string {
  const [fourcc, objectType, audioType] = codec.split(".");
  if (fourcc === "mp4a") {
    // MPEG-4 audio object types 0x40 (AAC and friends); 0x69 / 0x6b are MPEG-1/2 layer 3.
    if (objectType === "40") return audioType === "34" ? "mp3" : "aac";
    if (objectType === "67" || objectType === "66" || objectType === "68") return "aac";
    if (objectType === "69" || objectType === "6b" || objectType === "6B") return "mp3";
    return "aac";
  }
  return AUDIO[fourcc] ?? fourcc.toLowerCase();
}

/** music-metadata's codec descriptions ("MPEG 2 Layer 3", "MPEG-4/AAC", "PCM") as the same short names. */
export function describedAudioCodec(description: string | undefined): string | null {
  if (!description) return null;
  const d = description.toLowerCase();
  if (/layer\s*3/.test(d)) return "mp3";
  if (/layer\s*2/.test(d)) return "mp2";
  if (d.includes("aac")) return "aac";
  if (d.includes("pcm")) return "pcm";
  for (const name of ["flac", "opus", "vorbis", "alac", "e-ac-3", "ac-3", "speex", "wma"]) if (d.includes(name)) return name.replace(/-/g, "");
  return d.slice(0, 50);
}
