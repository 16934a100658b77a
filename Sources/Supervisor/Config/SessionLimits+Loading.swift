extension SessionLimits {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        idleSeconds = try section.value("idleSeconds", default: idleSeconds) { f throws(ConfigError) in try f.integer(in: 0...31_536_000) }
        onIdle = try section.value("onIdle", default: onIdle) { f throws(ConfigError) in
            try f.choice(["end": IdleAction.end, "newConversation": .newConversation])
        }
        onMessage = try section.value("onMessage", default: onMessage) { f throws(ConfigError) in
            try f.choice(["keep": MessageAction.keep, "newConversation": .newConversation])
        }
        maxRunSeconds = try section.value("maxRunSeconds", default: maxRunSeconds) { f throws(ConfigError) in
            try f.integer(in: 0...31_536_000)
        }
        sweepSeconds = try section.value("sweepSeconds", default: sweepSeconds) { f throws(ConfigError) in try f.integer(in: 1...3600) }
        queueMax = try section.value("queueMax", default: queueMax) { f throws(ConfigError) in try f.integer(in: 0...10_000) }
        commandSeconds = try section.value("commandSeconds", default: commandSeconds) { f throws(ConfigError) in
            try f.integer(in: 1...86_400)
        }
    }
}
