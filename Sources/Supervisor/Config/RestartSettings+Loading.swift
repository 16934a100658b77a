extension RestartSettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        immediateRestarts = try section.value("immediateRestarts", default: immediateRestarts) { f throws(ConfigError) in
            try f.integer(in: 0...10)
        }
        let initialMs = try section.value("initialBackoffMs", default: 500) { f throws(ConfigError) in
            try f.integer(in: 0...ConfigField.maximumMilliseconds)
        }
        initialBackoff = .milliseconds(initialMs)
        maxBackoff = try section.value("maxBackoffMs", default: max(maxBackoff, initialBackoff)) { f throws(ConfigError) in
            let value = try f.milliseconds(minimum: 0)
            if value < initialBackoff {
                throw f.error("must be at least \(section.keyPath("initialBackoffMs")) (\(initialMs))")
            }
            return value
        }
        jitter = try section.value("jitter", default: jitter) { f throws(ConfigError) in try f.number(in: 0...1) }
        crashLoopCount = try section.value("crashLoopCount", default: crashLoopCount) { f throws(ConfigError) in
            try f.integer(in: 1...1000)
        }
        crashLoopWindow = try section.value("crashLoopWindowSeconds", default: crashLoopWindow) { f throws(ConfigError) in
            try f.seconds(allowZero: false)
        }
        healthyReset = try section.value("healthyResetSeconds", default: healthyReset) { f throws(ConfigError) in
            try f.seconds(allowZero: false)
        }
    }
}
