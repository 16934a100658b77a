extension PluginSettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        disabled = try section.value("disabled", default: disabled) { f throws(ConfigError) in
            var names: [String] = []
            for item in try f.list("a list of plugin names") {
                let name = try item.nonEmptyString("a plugin name")
                if name.contains("/") { throw item.error("must be a plugin's file name, not a path") }
                names.append(name)
            }
            return names
        }
        handshakeTimeout = try section.value("handshakeTimeoutSeconds", default: handshakeTimeout) { f throws(ConfigError) in
            try f.seconds(allowZero: false)
        }
        pingInterval = try section.value("pingIntervalSeconds", default: pingInterval) { f throws(ConfigError) in
            try f.seconds(allowZero: false)
        }
        pingTimeout = try section.value("pingTimeoutSeconds", default: pingTimeout) { f throws(ConfigError) in
            try f.seconds(allowZero: false)
        }
        outboxLimit = try section.value("outboxLimit", default: outboxLimit) { f throws(ConfigError) in
            try f.integer(in: 1...10_000_000)
        }
        // Below 64 KiB even ordinary pi events would be cut; above 1 GiB a line cannot be buffered.
        maxLineBytes = try section.value("maxLineBytes", default: maxLineBytes) { f throws(ConfigError) in
            try f.integer(in: 65_536...1 << 30)
        }
        restart = try RestartSettings(section.section("restart"))
        shutdownGrace = try section.value("shutdownGraceMs", default: shutdownGrace) { f throws(ConfigError) in
            try f.milliseconds(minimum: 0)
        }
    }
}
