/// What a schedule does about a run that should have come while pi-relayd was not running (or
/// the machine slept): run it once on start (`run`, the default), or leave it out (`skip`).
/// Either way the runs after it keep to the schedule; several missed runs never pile up.
package enum MissedRunPolicy: String, Codable, Sendable, CaseIterable {
    case run
    case skip
}
