import PiRelaySDK

extension WebConfig {
    /// The `web:` section as the hello declares it: pi-relayd checks it against this before the
    /// welcome, so mistakes are reported with their line and column.
    static let schema = ConfigSchema(keys: [
        ConfigKey("listen", .string(nonEmpty: true), help: "HOST:PORT to listen on; anything but loopback needs tls"),
        ConfigKey("hosts", .list(.string(nonEmpty: true), what: "a list of host names"), help: "names the browser may use besides localhost"),
        ConfigKey("tls", .any, help: "{certificate, key}: PEM files, to serve HTTPS"),
        ConfigKey("roots", .list(.string(nonEmpty: true), what: "a list of folders"), help: "folders under which the dashboard may start sessions"),
        ConfigKey("allowedUsers", .list(.string(nonEmpty: true), what: "a list of web user ids"), help: "web user ids let in without pairing"),
    ])

}
