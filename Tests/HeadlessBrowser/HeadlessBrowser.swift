public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A headless Chromium driven over the DevTools protocol on its remote-debugging pipe (file descriptors 3 and 4
/// of the browser process; messages are JSON texts ended by a NUL byte). No port is opened.
///
/// Everything the page reports is recorded per page: console errors and assertions, uncaught exceptions,
/// browser log errors (failed loads, content-security-policy violations) and every network request.
///
/// ```swift
/// let browser = try HeadlessBrowser()
/// let rendering = try await browser.render(fileURL, evaluating: "document.title")
/// await browser.close()
/// ```
public final class HeadlessBrowser: Sendable {
    /// A browser-side failure: it could not start, answered with an error, exited, or did not answer in time.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// What a page showed.
    public struct Rendering: Sendable {
        /// The value of the evaluated expression.
        public var value: JSONValue
        /// Console errors and assertions, uncaught exceptions and browser log errors, in order.
        public var consoleErrors: [String]
        /// The URLs the page requested other than itself.
        public var requests: [String]
        /// A PNG screenshot of the whole page.
        public var screenshot: Data
        /// The page's full size in CSS pixels.
        public var contentSize: (width: Int, height: Int)
    }

    private struct State {
        var nextID = 1
        var pending: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var events: [(method: String, sessionID: String?, params: JSONValue)] = []
        var eventWaiters: [Int: (method: String, sessionID: String, continuation: CheckedContinuation<JSONValue, any Error>)] = [:]
        var exited: String?
    }

    private let state = Mutex(State())
    private let processID: pid_t
    private let toBrowser: Int32
    private let fromBrowser: Int32
    private let profile: URL
    /// The browser's standard error, kept for failure messages.
    public let logFile: URL
    /// How long one protocol command may take.
    private let timeout: Duration

    /// The Chromium binary: `$FM_CHROMIUM`, else the first of `chromium`, `chromium-browser`, `google-chrome` on
    /// the `PATH`.
    public static func executable() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["FM_CHROMIUM"], !path.isEmpty { return path }
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
                return directory + "/" + name
            }
        }
        throw Failure(message: "No Chromium found on the PATH. `make test` installs it (Debian package `chromium`); "
            + "or run `apt-get install chromium`, or set FM_CHROMIUM to a Chromium binary.")
    }

    /// Starts a headless browser.
    public init(executable: String? = nil, timeout: Duration = .seconds(60)) throws {
        let path = try executable ?? Self.executable()
        self.timeout = timeout
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("fm-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        logFile = profile.appendingPathComponent("stderr.log")

        let (commandRead, commandWrite) = try Self.pipe()
        let (replyRead, replyWrite) = try Self.pipe()
        let arguments = [
            path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--mute-audio", "--hide-scrollbars", "--remote-debugging-pipe", "--user-data-dir=" + profile.path, "about:blank",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The pipe ends sit at 10 and above, so these copies never overwrite one another.
        posix_spawn_file_actions_adddup2(&actions, commandRead, 3)
        posix_spawn_file_actions_adddup2(&actions, replyWrite, 4)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, logFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own, so its helper processes can be ended with it.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, &argv, environ)
        closeDescriptor(commandRead)
        closeDescriptor(replyWrite)
        guard status == 0 else {
            closeDescriptor(commandWrite)
            closeDescriptor(replyRead)
            try? FileManager.default.removeItem(at: profile)
            throw Failure(message: "Cannot start \(path): \(String(cString: strerror(status)))")
        }
        processID = pid
        toBrowser = commandWrite
        fromBrowser = replyRead
        let thread = Thread { [self] in readLoop() }
        thread.name = "chromium-devtools-reader"
        thread.start()
    }

    /// A pipe whose ends are close-on-exec and numbered 10 or above.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw Failure(message: "pipe failed: \(String(cString: strerror(errno)))") }
        let read = fcntl(fds[0], F_DUPFD_CLOEXEC, 10)
        let write = fcntl(fds[1], F_DUPFD_CLOEXEC, 10)
        closeDescriptor(fds[0])
        closeDescriptor(fds[1])
        guard read >= 0, write >= 0 else { throw Failure(message: "fcntl failed: \(String(cString: strerror(errno)))") }
        return (read, write)
    }

    // MARK: Protocol

    /// Reads NUL-terminated messages until the browser closes its end (runs on its own thread: it blocks).
    private func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let decoder = JSONDecoder()
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fromBrowser, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
            while let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                if let value = try? decoder.decode(JSONValue.self, from: Data(message)) { dispatch(value) }
            }
        }
        closeDescriptor(fromBrowser)
        let failed = state.withLock { state -> [CheckedContinuation<JSONValue, any Error>] in
            state.exited = "The browser exited."
            let continuations = Array(state.pending.values) + state.eventWaiters.values.map(\.continuation)
            state.pending.removeAll()
            state.eventWaiters.removeAll()
            return continuations
        }
        for continuation in failed { continuation.resume(throwing: Failure(message: "The browser exited. \(logTail())")) }
    }

    private func dispatch(_ message: JSONValue) {
        if let id = message["id"]?.number {
            let continuation = state.withLock { $0.pending.removeValue(forKey: Int(id)) }
            if let error = message["error"] {
                continuation?.resume(throwing: Failure(message: "DevTools error: \(error)"))
            } else {
                continuation?.resume(returning: message["result"] ?? .null)
            }
            return
        }
        guard let method = message["method"]?.string else { return }
        let sessionID = message["sessionId"]?.string
        let params = message["params"] ?? .null
        let woken = state.withLock { state -> [CheckedContinuation<JSONValue, any Error>] in
            state.events.append((method, sessionID, params))
            let matching = state.eventWaiters.filter { $0.value.method == method && $0.value.sessionID == sessionID }
            for key in matching.keys { state.eventWaiters.removeValue(forKey: key) }
            return matching.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: params) }
    }

    /// Sends a command and waits for its result.
    @discardableResult
    public func send(_ method: String, _ params: [String: JSONValue] = [:], session: String? = nil) async throws -> JSONValue {
        var message: [String: JSONValue] = ["method": .string(method), "params": .object(params)]
        if let session { message["sessionId"] = .string(session) }
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        message["id"] = .number(Double(id))
        let bytes = Array(try JSONEncoder().encode(JSONValue.object(message))) + [0]
        let timeout = timeout
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.expire(id: id, what: method)
        }
        defer { watchdog.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let exited = state.withLock { state -> String? in
                if let exited = state.exited { return exited }
                state.pending[id] = continuation
                return nil
            }
            if let exited {
                continuation.resume(throwing: Failure(message: exited))
                return
            }
            if !writeAll(bytes) {
                let continuation = state.withLock { $0.pending.removeValue(forKey: id) }
                continuation?.resume(throwing: Failure(message: "Cannot write to the browser. \(logTail())"))
            }
        }
    }

    private func expire(id: Int, what: String) {
        let continuation = state.withLock { $0.pending.removeValue(forKey: id) }
        continuation?.resume(throwing: Failure(message: "The browser did not answer \(what) within \(timeout). \(logTail())"))
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Waits for an event of a session (returns at once when it has already arrived).
    public func waitForEvent(_ method: String, session: String) async throws -> JSONValue {
        let key = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timeout = timeout
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: timeout)
            let continuation = self?.state.withLock { $0.eventWaiters.removeValue(forKey: key)?.continuation }
            continuation?.resume(throwing: Failure(message: "No \(method) event within \(timeout)."))
        }
        defer { watchdog.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let arrived = state.withLock { state -> JSONValue? in
                if let event = state.events.first(where: { $0.method == method && $0.sessionID == session }) { return event.params }
                state.eventWaiters[key] = (method, session, continuation)
                return nil
            }
            if let arrived { continuation.resume(returning: arrived) }
        }
    }

    /// The events received so far for a session.
    public func events(session: String) -> [(method: String, params: JSONValue)] {
        state.withLock { state in state.events.filter { $0.sessionID == session }.map { ($0.method, $0.params) } }
    }

    private func logTail() -> String {
        guard let log = try? String(contentsOf: logFile, encoding: .utf8) else { return "" }
        let lines = log.split(separator: "\n").filter { !$0.contains("dbus") }.suffix(8)
        return lines.isEmpty ? "" : "Browser log: " + lines.joined(separator: " | ")
    }

    // MARK: Pages

    /// Opens `url` in a new tab `width` CSS pixels wide, waits until it has loaded, evaluates `expression`
    /// (its value must be JSON-serialisable), takes a screenshot of the whole page and closes the tab.
    public func render(_ url: URL, evaluating expression: String, width: Int = 1280) async throws -> Rendering {
        let target = try await send("Target.createTarget", ["url": .string("about:blank")])
        guard let targetID = target["targetId"]?.string else { throw Failure(message: "No target id in \(target)") }
        let attached = try await send("Target.attachToTarget", ["targetId": .string(targetID), "flatten": .bool(true)])
        guard let session = attached["sessionId"]?.string else { throw Failure(message: "No session id in \(attached)") }
        for domain in ["Runtime", "Log", "Network", "Page"] { try await send(domain + ".enable", session: session) }
        try await send("Emulation.setDeviceMetricsOverride", [
            "width": .number(Double(width)), "height": .number(900), "deviceScaleFactor": .number(1), "mobile": .bool(false),
        ], session: session)
        let navigation = try await send("Page.navigate", ["url": .string(url.absoluteString)], session: session)
        if let error = navigation["errorText"]?.string { throw Failure(message: "Cannot open \(url): \(error)") }
        _ = try await waitForEvent("Page.loadEventFired", session: session)

        let evaluated = try await send("Runtime.evaluate", [
            "expression": .string(expression), "returnByValue": .bool(true),
        ], session: session)
        if let details = evaluated["exceptionDetails"] { throw Failure(message: "The expression threw: \(details)") }
        let value = evaluated["result"]?["value"] ?? .null

        let metrics = try await send("Page.getLayoutMetrics", session: session)
        let size = metrics["cssContentSize"] ?? metrics["contentSize"] ?? .null
        let pageWidth = Int((size["width"]?.number ?? Double(width)).rounded(.up))
        let pageHeight = min(Int((size["height"]?.number ?? 900).rounded(.up)), 16_000)
        let shot = try await send("Page.captureScreenshot", [
            "format": .string("png"), "captureBeyondViewport": .bool(true),
            "clip": .object(["x": .number(0), "y": .number(0), "width": .number(Double(pageWidth)),
                             "height": .number(Double(pageHeight)), "scale": .number(1)]),
        ], session: session)
        guard let encoded = shot["data"]?.string, let png = Data(base64Encoded: encoded) else {
            throw Failure(message: "No screenshot data")
        }
        // Give late console messages and requests a moment to arrive before reading the log.
        try await Task.sleep(for: .milliseconds(200))
        let (errors, requests) = Self.problems(in: events(session: session), pageURL: url)
        try await send("Target.closeTarget", ["targetId": .string(targetID)])
        return Rendering(value: value, consoleErrors: errors, requests: requests, screenshot: png,
                         contentSize: (pageWidth, pageHeight))
    }

    /// The console errors and outside requests recorded in a page's events.
    static func problems(in events: [(method: String, params: JSONValue)], pageURL: URL) -> (errors: [String], requests: [String]) {
        var errors: [String] = []
        var requests: [String] = []
        for (method, params) in events {
            switch method {
            case "Runtime.consoleAPICalled":
                let type = params["type"]?.string ?? ""
                guard type == "error" || type == "assert" else { continue }
                let text = (params["args"]?.array ?? []).map { $0["value"]?.string ?? $0["description"]?.string ?? "\($0)" }
                errors.append("console.\(type): " + text.joined(separator: " "))
            case "Runtime.exceptionThrown":
                let details = params["exceptionDetails"]
                errors.append("exception: " + (details?["exception"]?["description"]?.string ?? details?["text"]?.string ?? "\(params)"))
            case "Log.entryAdded":
                let entry = params["entry"]
                guard entry?["level"]?.string == "error" else { continue }
                errors.append("log (\(entry?["source"]?.string ?? "?")): " + (entry?["text"]?.string ?? "") + " " + (entry?["url"]?.string ?? ""))
            case "Network.requestWillBeSent":
                guard let requested = params["request"]?["url"]?.string else { continue }
                if requested != pageURL.absoluteString, requested != "about:blank" { requests.append(requested) }
            default:
                continue
            }
        }
        return (errors, requests)
    }

    /// Closes the browser and removes its profile; ends its processes if it does not exit by itself.
    public func close() async {
        _ = try? await send("Browser.close")
        for _ in 0..<100 {
            // Look without reaping: until it is reaped the browser's id still names its process group.
            var info = siginfo_t()
            if waitid(P_PID, id_t(processID), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info._sifields._sigchld.si_pid != 0 { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        // Helpers left in the browser's own process group go with it.
        kill(-processID, SIGKILL)
        for _ in 0..<100 {
            var status: Int32 = 0
            if waitpid(processID, &status, WNOHANG) != 0 { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        closeDescriptor(toBrowser)
        try? FileManager.default.removeItem(at: profile)
    }
}


/// Closes a file descriptor (a free function: inside the browser class `close` is the browser's own method).
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
