import Testing

@testable import Supervisor
@testable import SupervisorCLI

/// The unit text for paths systemd would otherwise split or expand.
@Suite struct ServiceUnitTests {
    @Test func wordsWithSpacesQuotesPercentOrDollarAreQuotedAsSystemdReadsThem() {
        #expect(ServiceUnit.quoted("/usr/bin/pi-relayd", inCommand: true) == "/usr/bin/pi-relayd")
        #expect(ServiceUnit.quoted("/home/a b/pi-relayd", inCommand: true) == "\"/home/a b/pi-relayd\"")
        #expect(ServiceUnit.quoted("/opt/100%/$x", inCommand: true) == "/opt/100%%/$$x")
        #expect(ServiceUnit.quoted("PATH=/a\"b:/c\\d", inCommand: false) == "\"PATH=/a\\\"b:/c\\\\d\"")
        #expect(ServiceUnit.quoted("PI_RELAYD_HOME=/srv/$x", inCommand: false) == "PI_RELAYD_HOME=/srv/$x")
    }

    @Test func statusReadsBackTheExecutableInstallWrote() {
        for executable in ["/usr/local/bin/pi-relayd", "/home/a b/bin/pi-relayd", "/opt/100%/$x/pi-relayd", "/q\"uote/pi-relayd"] {
            let unit = ServiceUnit(executable: executable, path: ["/usr/bin"], relaydHome: nil)
            #expect(ServiceStatusCommand.executable(in: unit.text) == executable)
        }
    }

    @Test func theServicePathPutsPisFolderFirstAndKeepsEachFolderOnce() {
        #expect(
            ServiceInstallCommand.servicePath(pi: "/h/.nvm/v24/bin/pi", searchPath: "/usr/bin:relative:/h/.nvm/v24/bin:/bin:/usr/bin")
                == ["/h/.nvm/v24/bin", "/usr/bin", "/bin"])
        #expect(ServiceInstallCommand.servicePath(pi: nil, searchPath: "") == ["/usr/local/bin", "/usr/bin", "/bin"])
        #expect(ServiceInstallCommand.servicePath(pi: "/p/pi", searchPath: "") == ["/p", "/usr/local/bin", "/usr/bin", "/bin"])
    }
}
