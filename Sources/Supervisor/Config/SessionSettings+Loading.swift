extension SessionSettings {
    package init(_ section: ConfigSection, home: String?) throws(ConfigError) {
        self.init()
        historyEvents = try section.value("historyEvents", default: historyEvents) { f throws(ConfigError) in
            try f.integer(in: 0...100_000_000)
        }
        historyBytes = try section.value("historyBytes", default: historyBytes) { f throws(ConfigError) in
            try f.integer(in: 0...Int.max)
        }
        defaultCwd = try section.value("defaultCwd", default: nil) { f throws(ConfigError) in try f.absolutePath(home: home) }
        busyPolicy = try section.value("busyPolicy", default: busyPolicy) { f throws(ConfigError) in
            try f.choice(["followUp": BusyPolicy.followUp, "steer": .steer])
        }
        spawnLimit = try section.value("spawnLimit", default: spawnLimit) { f throws(ConfigError) in try f.integer(in: 0...1000) }
        limits = try SessionLimits(section.section("limits"))
        keepDays = try section.value("keepDays", default: keepDays) { f throws(ConfigError) in try f.integer(in: 0...36_500) }
    }
}
