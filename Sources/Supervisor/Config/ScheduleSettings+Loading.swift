extension ScheduleSettings {
    package init(_ section: ConfigSection) throws(ConfigError) {
        self.init()
        minimumIntervalSeconds = try section.value("minimumIntervalSeconds", default: minimumIntervalSeconds) { f throws(ConfigError) in
            try f.integer(in: 1...31_622_400)
        }
        timeZone = try section.value("timeZone", default: nil) { f throws(ConfigError) -> String? in
            let name = try f.nonEmptyString("a time zone name such as Europe/Berlin or UTC")
            // Read now, so a name the machine does not have is refused at start, with its place.
            do throws(ZoneError) { _ = try ZoneRules.named(name) } catch { throw f.error(error.description) }
            return name
        }
    }
}
