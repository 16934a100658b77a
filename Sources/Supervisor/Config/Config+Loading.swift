extension Config {
    /// The sections pi-relayd itself reads; every other known top-level key is a plugin's.
    package static let coreSections = ["pi", "plugins", "logs", "sessions", "approvals", "metrics", "chat", "notify", "schedules"]
    /// Top-level keys starting with this are ignored without a warning.
    package static let extensionPrefix = "x-"

    /// Builds the config from config.yaml's root node (nil for an empty file). `pluginNames` are
    /// the top-level keys taken as plugin sections.
    package init(
        root: YAMLNode?, file: String, pluginNames: Set<String>, home: String?,
        warnings: inout [String]
    ) throws(ConfigError) {
        self.init()
        guard let root, !root.isNull else { return }
        guard let pairs = root.pairs else {
            throw ConfigError(
                .invalidValue, file: file, at: root.mark,
                "the file must be a map of sections (pi:, plugins:, logs:, ...), got \(root.kindDescription)")
        }
        let top = ConfigSection(pairs: pairs, path: "", file: file, mark: root.mark)
        machine = try top.value("machine", default: nil) { field throws(ConfigError) in
            let name = try field.nonEmptyString("a machine name")
            guard MachineName.isValid(name) else {
                throw field.error(
                    "must be a machine name: letters, digits, '.', '_' and '-', at most \(MachineName.maxLength), starting with a letter or digit")
            }
            return name
        }
        pi = try PiSettings(top.section("pi"), home: home)
        plugins = try PluginSettings(top.section("plugins"))
        logs = try LogSettings(top.section("logs"))
        sessions = try SessionSettings(top.section("sessions"), home: home)
        approvals = try ApprovalSettings(top.section("approvals"))
        metrics = try MetricsSettings(top.section("metrics"))
        chat = try ChatSettings(top.section("chat"))
        notify = try NotifySettings(top.section("notify"))
        schedules = try ScheduleSettings(top.section("schedules"))

        // Checked against the plugin's own schema once it says hello (`PluginSections`).
        for name in pluginNames.subtracting(Self.coreSections).sorted() {
            guard let field = top.field(name) else { continue }
            guard field.node.pairs != nil else { throw field.mismatch("a map of settings for the \(name) plugin") }
            pluginSections[name] = field.node.jsonValue
            pluginSources[name] = PluginSectionSource(field: field, home: home)
        }
        for pair in top.unknownKeys {
            // `x-` keys hold anchors for reuse (the docker-compose convention), so they are quiet.
            guard case .scalar(let name, _) = pair.key.content, !name.hasPrefix(Self.extensionPrefix) else { continue }
            var text = "\(file):\(pair.key.mark): unknown key \(YAMLNode.quoted(name)) (ignored: it is not a pi-relayd section"
            text += " and no installed plugin has this name"
            let suggestion = ConfigSection.closest(to: name, in: Self.coreSections + ["machine"] + pluginNames.sorted())
            // Approval rules under a misspelled section name would all be off: refused, not warned.
            if suggestion == "approvals" {
                throw ConfigError(
                    .invalidValue, file: file, at: pair.key.mark,
                    "unknown key \(YAMLNode.quoted(name)) (did you mean 'approvals'?): its approval rules would not be in force")
            }
            if let suggestion { text += "; did you mean '\(suggestion)'?" }
            warnings.append(text + ")")
        }
        warnings.append(contentsOf: top.children.flatMap { $0.unknownKeyWarningsIncludingNested() })
    }
}
