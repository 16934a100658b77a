import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check pi, the messengers' tokens and settings, allowlists, file modes, disk space, the plugins and the extension.",
        discussion: """
            Each check prints ✓ or ✗; a ✗ comes with its fix. pi and each messenger plugin are started \
            briefly (the plugins check-only: no gateway, no polling); nothing is changed. Exit status: 0 \
            when every check passes, 1 otherwise.
            """)

    @Option(name: .customLong("min-free-mb"), help: "Free space under which the disk check fails, in MB.") var minimumFreeMB: UInt64 = 500
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let doctor = Doctor(
            home: Home.resolve(), environment: ProcessInfo.processInfo.environment, minimumFreeBytes: minimumFreeMB << 20,
            piTimeout: .seconds(10))
        let checks = await doctor.run()
        let failed = checks.filter { !$0.passed }.count
        output.emit(["passed": .bool(failed == 0), "checks": .array(checks.map(\.json))]) {
            (checks.map(\.text) + [failed == 0 ? "all \(checks.count) checks passed" : "\(failed) of \(checks.count) checks failed"])
                .joined(separator: "\n")
        }
        if failed > 0 { throw ExitCode(1) }
    }
}
