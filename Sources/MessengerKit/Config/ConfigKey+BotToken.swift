import PiRelaySDK

extension ConfigKey {
    /// A messenger section's `tokenEnv`: the variable that holds its bot token (`variable` by
    /// default), never the token itself. `source` says where the owner gets one.
    public static func botToken(variable: String, source: String) -> ConfigKey {
        ConfigKey(
            "tokenEnv", .secret(ConfigSecret(variable: variable, name: "bot token", source: source)),
            help: "the environment variable (or .env entry) holding the bot token; the token never appears in config.yaml")
    }
}
