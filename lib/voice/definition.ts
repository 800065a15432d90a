/** Current VoiceProfile.schema_version: the shape of VoiceDefinitionValue (db/schema/voice.ts, beside the column that stores it). */
export const VOICE_SCHEMA_VERSION = 1;
