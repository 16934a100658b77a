import Logging

extension LogSettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        level = try section.value("level", default: level) { f throws(ConfigError) in
            try f.choice([
                "trace": Logger.Level.trace, "debug": .debug, "info": .info, "notice": .notice,
                "warning": .warning, "error": .error, "critical": .critical,
            ])
        }
        maxBytes = try section.value("maxBytes", default: maxBytes) { f throws(ConfigError) in
            try f.integer(in: 4096...Int.max)
        }
        keep = try section.value("keep", default: keep) { f throws(ConfigError) in try f.integer(in: 0...1000) }
    }
}
