import DocSyncControl
import DocSyncTestSupport
import Testing

@Suite struct ControlSocketLocationTests {
    @Test func runtimeDirectoryFromTheEnvironment() {
        let path = ControlSocketLocation.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], userID: 1000) { _ in false }
        #expect(path == "/run/user/1000/docsync/control.sock")
    }

    @Test func systemdRuntimeDirectoryWhenTheVariableIsMissing() {
        let asked = Synchronized<[String]>([])
        let path = ControlSocketLocation.defaultPath(environment: ["XDG_RUNTIME_DIR": "relative/ignored"], userID: 1001) { directory in
            asked.update { $0.append(directory) }
            return true
        }
        #expect(path == "/run/user/1001/docsync/control.sock")
        #expect(asked.value == ["/run/user/1001"])
    }

    @Test func temporaryDirectoryAsTheLastResort() {
        #expect(ControlSocketLocation.defaultPath(environment: ["TMPDIR": "/var/tmp/"], userID: 1002) { _ in false } == "/var/tmp/docsync-1002/control.sock")
        #expect(ControlSocketLocation.defaultPath(environment: [:], userID: 1002) { _ in false } == "/tmp/docsync-1002/control.sock")
        #expect(ControlSocketLocation.defaultPath(environment: ["TMPDIR": ""], userID: 7) { _ in false } == "/tmp/docsync-7/control.sock")
    }

    @Test func docsStatusOrder() {
        let environment = ["DOCSYNC_SOCKET": "/from/env.sock", "XDG_RUNTIME_DIR": "/run/user/5"]
        #expect(ControlSocketLocation.resolve(explicit: "/flag.sock", environment: environment) == "/flag.sock")
        #expect(ControlSocketLocation.resolve(explicit: nil, environment: environment) == "/from/env.sock")
        #expect(ControlSocketLocation.resolve(explicit: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/5"]) == "/run/user/5/docsync/control.sock")
        #expect(ControlSocketLocation.resolve(explicit: nil, environment: ["DOCSYNC_SOCKET": "", "XDG_RUNTIME_DIR": "/r"]) == "/r/docsync/control.sock")
    }
}
