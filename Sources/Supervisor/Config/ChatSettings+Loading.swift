extension ChatSettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        senderPrefix = try section.value("senderPrefix", default: nil) { field throws(ConfigError) -> String? in
            let text = try field.string("a prefix such as \"[{name}] \"")
            return text.isEmpty ? nil : text
        }
        progress = try section.value("progress", default: progress) { field throws(ConfigError) in
            try field.choice(["quiet": ProgressMode.quiet, "normal": .normal, "verbose": .verbose, "completion-only": .completionOnly])
        }
    }
}
