extension MetricsSettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        listen = try section.value("listen", default: nil) { field throws(ConfigError) -> MetricsAddress? in
            let text = try field.string("an address and port such as 127.0.0.1:9464")
            if text.isEmpty { return nil }
            do throws(MetricsAddress.ParseError) { return try MetricsAddress(parsing: text) } catch { throw field.error(error.description) }
        }
        healthLogSeconds = try section.value("healthLogSeconds", default: healthLogSeconds) { field throws(ConfigError) in
            try field.integer(in: 0...86_400)
        }
    }
}
