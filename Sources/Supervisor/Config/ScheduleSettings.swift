/// `schedules:` — scheduled prompts (`/schedule`, `pi-relayd schedule`).
package struct ScheduleSettings: Sendable, Equatable {
    /// `schedules.minimumIntervalSeconds`: the shortest time a schedule may leave between two
    /// runs (an interval, or the closest two times of a cron expression).
    package var minimumIntervalSeconds = 60
    /// `schedules.timeZone`: the zone of a schedule that names none (`tz=`); nil is the
    /// machine's own (`TZ`, /etc/localtime).
    package var timeZone: String?
}
