extension NotifySettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        longRunSeconds = try section.value("longRunSeconds", default: longRunSeconds) { field throws(ConfigError) in
            try field.seconds(allowZero: true)
        }
        mentions = try section.value("mentions", default: mentions) { field throws(ConfigError) in try field.bool() }
    }
}
