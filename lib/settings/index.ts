export {
  SETTINGS,
  STRIPE_API_ORIGIN,
  NETWORK_ORIGINS,
  type OAuthNetwork,
  findSetting,
  envVarOf,
  checkValue,
  type CheckContext,
  type SettingDefinition,
  type SettingKey,
} from "./catalogue";
export { liveSettings, type LiveSettings } from "./live";
export { settingsInForce, forgetSettingsInForce, envValue, type SettingsInForce } from "./in-force";
