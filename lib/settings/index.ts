export { SETTINGS, findSetting, envVarOf, checkValue, type SettingDefinition, type SettingKey } from "./catalogue";
export { settingsInForce, forgetSettingsInForce, envValue, type SettingsInForce } from "./in-force";
