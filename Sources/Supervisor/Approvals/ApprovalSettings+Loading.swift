import FoundationEssentials

extension ApprovalSettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        timeout = try section.value("timeoutSeconds", default: timeout) { field throws(ConfigError) in
            let seconds = try field.seconds(allowZero: false)
            // pi's extension waits with a JavaScript timer, which fires at once past 2^31-1 ms:
            // a month meant as "wait for me" denied every gated call at once.
            guard seconds <= .seconds(Self.longestWait) else {
                throw field.error("is at most \(Self.longestWait) (about 23 days): pi's extension cannot wait longer")
            }
            return seconds
        }
        var names: Set<String> = []
        rules = try section.value("rules", default: []) { field throws(ConfigError) in try Self.rules(field, in: section, names: &names) }
        let perSession = try section.section("sessions")
        for name in perSession.presentKeys {
            let session = try perSession.section(name)
            sessionRules[name] = try session.value("rules", default: []) { field throws(ConfigError) in
                try Self.rules(field, in: session, names: &names)
            }
        }
        // Security fails closed: a misspelled key here is a gate the owner wrote and would think
        // in force, so it stops the start instead of being warned about.
        try section.refuseUnknownKeys(because: "approvals are refused rather than read without it")
    }

    /// The longest `timeoutSeconds`: a JavaScript timer's limit, less the 30 s the extension adds.
    static let longestWait = 2_000_000

    private static func rules(_ field: ConfigField, in parent: ConfigSection, names: inout Set<String>) throws(ConfigError) -> [ApprovalRule] {
        var result: [ApprovalRule] = []
        for item in try field.list("a list of rules") {
            let rule = try item.section()
            parent.include(rule)
            let name = try rule.value("name", default: "") { field throws(ConfigError) in try field.nonEmptyString("a rule name") }
            if name.isEmpty { throw item.error("needs a name (shown in the approval question and the audit log)") }
            if names.contains(name) { throw item.error("repeats the rule name \(YAMLNode.quoted(name)); each rule needs its own") }
            names.insert(name)
            let tools = try rule.value("tools", default: [String]()) { field throws(ConfigError) in
                if field.node.items == nil { return [try field.nonEmptyString("a tool name or a list of them")] }
                var tools: [String] = []
                for tool in try field.list("a list of tool names") { tools.append(try tool.nonEmptyString("a tool name")) }
                return tools
            }
            if tools.isEmpty { throw item.error("needs tools: the tool names it gates (bash, write, edit, ...)") }
            let command = try rule.value("command", default: nil) { field throws(ConfigError) -> String? in
                let pattern = try field.nonEmptyString("a regular expression")
                do { _ = try Regex(pattern) } catch {
                    throw field.error("is not a valid regular expression")
                }
                if let problem = JavaScriptPattern.problem(pattern) { throw field.error("is read another way where it runs: \(problem)") }
                return pattern
            }
            let paths = try rule.value("paths", default: [String]()) { field throws(ConfigError) in
                if field.node.items == nil { return [try field.nonEmptyString("a glob or a list of globs")] }
                var globs: [String] = []
                for glob in try field.list("a list of globs") { globs.append(try glob.nonEmptyString("a glob")) }
                return globs
            }
            let outsideCwd = try rule.value("outsideCwd", default: false) { field throws(ConfigError) in try field.bool() }
            result.append(ApprovalRule(name: name, tools: tools, command: command, paths: paths, outsideCwd: outsideCwd))
        }
        return result
    }
}
