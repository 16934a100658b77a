import Testing

@testable import Supervisor

/// `machine:`: what a name may hold, and the default made from the host name.
@Suite struct MachineNameTests {
    @Test func namesHoldNoSlashNoSpaceAndStartWithALetterOrDigit() {
        for good in ["laptop", "desk-1", "build.box", "a_b", "9", String(repeating: "x", count: 63)] { #expect(MachineName.isValid(good), "\(good)") }
        for bad in ["", "my laptop", "a/b", "-lead", ".hidden", "café", String(repeating: "x", count: 64)] {
            #expect(!MachineName.isValid(bad), "\(bad)")
        }
    }

    @Test func theDefaultIsTheHostNamesFirstLabelMadeValid() {
        #expect(MachineName.fromHost("laptop.local") == "laptop")
        #expect(MachineName.fromHost("Desk Top") == "Desk-Top")
        #expect(MachineName.fromHost("-x") == "x")
        #expect(MachineName.fromHost("") == "localhost")
        #expect(MachineName.isValid(MachineName.host))
    }

    @Test func configNamesTheMachineOrLeavesItToTheHostName() throws {
        let home = ConfigTestHome()
        home.write("config.yaml", "machine: desk-2\n")
        let named = try home.load(knownPlugins: [])
        #expect(named.config.machine == "desk-2" && named.config.machineName == "desk-2")
        #expect(named.warnings.isEmpty, "\(named.warnings)")
        home.write("config.yaml", "pi:\n  command: pi\n")
        let unnamed = try home.load(knownPlugins: [])
        #expect(unnamed.config.machine == nil && unnamed.config.machineName == MachineName.host)
    }
}
