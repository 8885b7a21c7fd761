import ArgumentParser
import FMTagging
import Foundation
import FoundationModels

extension FM {
    /// `fm tag`: tag or classify texts, one JSONL result line per input.
    struct Tag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tag or classify texts with the content-tagging model; writes JSONL.",
            discussion: """
                Input: text arguments, --file, or stdin; each line is plain text or a JSON object \
                {"id", "text", …}. Output: one line per input, in input order: {"id","text",…,"result":{…}} \
                or {"id","text",…,"error":{"code","message"}}. Other input fields (a date, labels) are copied.

                Exit status: 0 when every record has a result; 2 when the job finished but some records (in a \
                resumed output, counting the lines already there) have error lines; 1 when the job stopped; 64 \
                for invalid arguments.
                """
        )

        @Argument(help: "Texts to tag (otherwise --file or stdin).")
        var texts: [String] = []

        @Option(name: .long, help: "A file of texts, one per line (plain or JSONL); - is stdin.")
        var file: String?

        @Option(name: [.short, .long], help: "Write results to this file instead of stdout (- is stdout).")
        var output: String?

        @Flag(name: .long, help: "Continue an interrupted run: keep finished records in --output and append the rest.")
        var resume = false

        @OptionGroup var tagging: TaggingOptions
        @OptionGroup var modelOptions: ModelOptions

        /// --file, with `-` (stdin, read as when it is left out) as `nil`.
        private var inputFile: String? { file == "-" ? nil : file }
        /// --output, with `-` (stdout) as `nil`.
        private var outputFile: String? { output == "-" ? nil : output }

        func validate() throws {
            if !texts.isEmpty, file != nil { throw ValidationError("Give texts as arguments or --file, not both.") }
            if let file = inputFile, !FileManager.default.fileExists(atPath: file) { throw ValidationError("No input file at \(file).") }
            if resume, outputFile == nil { throw ValidationError("--resume needs --output (a file).") }
            if resume, let output = outputFile, InputFile.exists(output), !InputFile.isRegularFile(output) {
                throw ValidationError("--resume continues a file; --output \(output) is a pipe or a device.")
            }
            // A pipe read whole as the examples would leave no texts (or the reverse); a regular file may be both.
            if let examples = tagging.examples, texts.isEmpty, case let input = inputFile ?? "/dev/stdin",
               InputFile.isSameFile(examples, input), !InputFile.isRegularFile(input) {
                throw ValidationError("The input is a pipe, read once: it cannot be both the texts to tag and the --examples file; give the examples as a file.")
            }
            if outputFile == nil, InputFile.isRegularFile("/dev/stdout") {
                // Standard output sent into what is read (`fm tag --file x.jsonl >> x.jsonl`): records are read as
                // they are tagged, so the job would read its own output lines as more records, without end.
                let standardInput = texts.isEmpty && inputFile == nil ? "/dev/stdin" : nil
                for (name, path) in [("--file input", inputFile), ("standard input", standardInput),
                                     ("--examples file", tagging.examples), ("--schema file", tagging.schema)] {
                    guard let path, InputFile.isSameFile(path, "/dev/stdout") else { continue }
                    throw ValidationError("Standard output is sent to the \(name); the job would read or overwrite its own output. Give --output another file.")
                }
            }
            if let output = outputFile {
                // Standard input read from the output file (`fm tag -o x.jsonl < x.jsonl`) is the input too: it is
                // read whole before the output is cut, but a job stopped early would leave the input cut to its lines.
                // Only a regular file: a terminal is one device behind /dev/stdin and /dev/stdout alike.
                let standardInput = texts.isEmpty && inputFile == nil && InputFile.isRegularFile("/dev/stdin") ? "/dev/stdin" : nil
                try ReportFile.validate(output, option: "--output", inputs: [("--file input", inputFile), ("standard input", standardInput),
                                                                             ("--examples file", tagging.examples), ("--schema file", tagging.schema)])
            }
            try tagging.validateSeed()
            try tagging.validateEndpoint(modelOptions)
        }

        func run() async throws {
            let schema = try tagging.generationSchema()
            var configuration = TaggingConfiguration(
                model: try await tagging.model(modelOptions),
                schema: schema,
                instructions: tagging.instructions,
                options: tagging.generationOptions,
                exampleIndex: try tagging.exampleIndex(schema: schema)
            )
            // Texts are tagged as the input arrives unless something needs the whole of it first: the finished lines
            // of an output to match against its records, or a sample of its texts to calibrate choices by, which a
            // file (unlike a pipe) can give by being read once more before.
            let rereadable = inputFile.map { InputFile.isRegularFile($0) } ?? false
            if texts.isEmpty, !(resume && outputHoldsLines), !configuration.usesCalibrationTexts || rereadable {
                var total: Int?
                if configuration.usesCalibrationTexts, let path = inputFile {
                    (configuration.calibrationTexts, total) = try await Self.calibrationSample(of: path, for: schema)
                } else if rereadable, let path = inputFile, isatty(STDERR_FILENO) != 0 {
                    // The progress line's bar and ETA, for a file on a terminal: one quick pass to count its records.
                    total = try await Self.recordCount(of: path).records
                }
                let input = try InputRecordStream(path: inputFile)
                if inputFile == nil { InputFile.noteIfTerminal(expecting: Self.expectedInput) }
                // An input that cannot be read, or is UTF-16, is refused before the output is opened (and cut).
                try await input.started()
                try await tag(input, total: total, configuration: configuration, finished: nil)
                if input.count == 0 { Self.noteNoTexts(in: input.name) }
                return
            }
            let records: [TaggingRecord]
            if !texts.isEmpty {
                // A text argument is tagged as written; one that names a file is more likely a missing --file.
                for text in texts where !text.contains(where: \.isWhitespace) && FileManager.default.fileExists(atPath: text) {
                    Console.note("warning: tagging the text \"\(text)\"; to tag the file's lines, use --file \(text)\n")
                }
                records = texts.enumerated().map { index, text in
                    TaggingRecord.parse(line: Array(text.utf8), lineNumber: index + 1)
                }
            } else {
                let data = try inputFile.map(InputFile.read) ?? InputFile.readStandardInput(expecting: Self.expectedInput)
                records = TaggingRecord.parse(input: Array(data))
                if records.isEmpty { Self.noteNoTexts(in: inputFile ?? "standard input") }
            }
            // The job's own texts (all of them, whatever is skipped) estimate the model's label prior.
            configuration.calibrationTexts = TaggingConfiguration.sample(of: records.compactMap { try? $0.text.get() }, for: schema)
            try await tag(TaggingRecordList(records), total: records.count, configuration: configuration, finished: records)
        }

        /// What standard input is read for, as a terminal is told.
        private static let expectedInput = "texts, one per line,"

        /// An empty job is no error (an empty day's file in a pipeline), but it is worth a word: a wrong path or
        /// an input read from the wrong stream looks just like it.
        private static func noteNoTexts(in name: String) {
            Console.note("fm tag: \(name) holds no texts; nothing to tag\n")
        }

        /// The calibration sample of the file at `path`, as ``TaggingConfiguration/sample(of:for:)`` takes it from
        /// the whole input, and the file's number of records: read twice, counting its texts and then taking the
        /// sampled ones, rather than held.
        private static func calibrationSample(of path: String, for schema: GenerationSchema) async throws -> ([String], Int) {
            let (records, texts) = try await recordCount(of: path)
            var positions = TaggingConfiguration.samplePositions(count: texts, for: schema)[...]
            var sample: [String] = []
            var position = 0
            let sampling = try InputRecordStream(path: path)
            defer { sampling.close() }
            while !positions.isEmpty, let record = try await sampling.next() {
                guard case .success(let text) = record.text else { continue }
                if position == positions.first {
                    sample.append(text)
                    positions.removeFirst()
                }
                position += 1
            }
            return (sample, records)
        }

        /// The number of records in the file at `path`, and of those with a text to tag.
        private static func recordCount(of path: String) async throws -> (records: Int, texts: Int) {
            var (records, texts) = (0, 0)
            let counting = try InputRecordStream(path: path)
            while let record = try await counting.next() {
                records += 1
                if case .success = record.text { texts += 1 }
            }
            return (records, texts)
        }

        /// Whether the output to resume already holds something: its lines must then be matched against the whole
        /// input before any is added.
        private var outputHoldsLines: Bool {
            guard let output = outputFile, InputFile.isRegularFile(output) else { return false }
            var info = stat()
            return stat(output, &info) == 0 && info.st_size > 0
        }

        /// Tags the records of `source` (`total` of them, when known) into the output. `records` is the whole
        /// input when it was read first, which a resume matches against the output's finished lines; `nil` for
        /// input tagged as it arrives, whose output is started afresh.
        private func tag(_ source: any TaggingRecordSource, total: Int?, configuration: TaggingConfiguration,
                         finished records: [TaggingRecord]?) async throws {
            var configuration = configuration
            let model = configuration.model
            let schema = configuration.schema
            // What made the output's lines: a resume with other settings would put other answers beside them.
            let job = tagging.jobIdentity(configuration: configuration, model: model)
            // Checked before the output is cut: a refused resume leaves the file as it was, partial last line and
            // all.
            let sink = try OutputSink(path: outputFile, resume: resume, job: job, schema: schema) { name, finished in
                guard let records else {
                    // It held nothing when the job chose to read its input as it arrives; lines written since (by a
                    // job that finished in between) would be tagged again beside their records.
                    if !finished.ids.isEmpty {
                        throw CommandFailure("Cannot resume \(name): another job wrote to it while this one started; run this one again.")
                    }
                    return
                }
                // Ids alone would match another input's lines (plain-text lines are numbered 1, 2, …), and its
                // results would stand in for this input's records.
                if let (record, written) = TaggingOutput.foreignLine(records, texts: finished.texts) {
                    throw CommandFailure("""
                        Cannot resume \(name): its line for id \(record.id) is of another text ("\(written.prefix(60))", \
                        not "\((try? record.text.get())?.prefix(60) ?? "")"), so it holds another input's results. Resume \
                        with the input that wrote it, or choose another --output.
                        """)
                }
                if let (id, lines) = TaggingOutput.surplusLine(records, finished: finished.ids) {
                    let held = records.count(where: { $0.id == id })
                    throw CommandFailure("""
                        Cannot resume \(name): it holds \(lines) \(lines == 1 ? "line" : "lines") for id \(id), and this \
                        input has \(held == 0 ? "no record" : held == 1 ? "1 record" : "\(held) records") with that id, so \
                        it holds another input's results. Resume with the input that wrote it, or choose another --output.
                        """)
                }
            }
            var remaining: (any TaggingRecordSource)? = nil
            var remainingCount = total
            var failed = 0
            if let records {
                let unfinished = TaggingOutput.unfinished(records, finished: sink.finished.ids)
                if records.count != unfinished.count {
                    Console.note("resuming: \(records.count - unfinished.count) of \(records.count) records already done\n")
                }
                if let early = TaggingOutput.lineOutOfOrder(records, finished: sink.finished.ids) {
                    Console.note("""
                        warning: record \(early.id) comes before records whose lines \(sink.name) already holds; its line and \
                        the rest go after them, out of input order (each line keeps its id)\n
                        """)
                }
                remaining = TaggingRecordList(unfinished)
                remainingCount = unfinished.count
                failed = TaggingOutput.keptFailures(records, failed: sink.finished.failed)
            }
            configuration.remoteEngines = tagging.remoteEngines
            let cache = tagging.cache()
            var source = remaining ?? source
            var hasWork = remainingCount.map { $0 > 0 } ?? true
            if remainingCount == nil, cache != nil, configuration.remoteEngines != nil {
                // An input read as it arrives is waited for before its servers are asked what they serve: an empty
                // one asks nothing (a server that does not answer would hold it until the request timed out).
                if let first = try await source.next() { source = RecordSourceTakenAhead(first: first, rest: source) } else { hasWork = false }
            }
            if let cache, hasWork { await configuration.remoteEngines?.identifyServedModels(cache: cache) }
            if hasWork { configuration = await configuration.describingLabels(cache: cache, status: ProgressLine.status) }
            // Started after the glossary, so the rate and ETA count texts only.
            var progress = ProgressLine(total: remainingCount)
            let runner = tagging.runner(configuration: configuration, cache: cache, progress: progress)
            // Whether the output holds an answer of the model, kept or written now.
            var holdsAnswers = sink.finished.failed.values.contains { $0.contains(false) }
            try await runner.run(source) { record, outcome in
                progress.clear()
                // The model failed to load (a file cut short, an architecture llama.cpp does not know), or no
                // --endpoint server could be reached or had room for one request: every record would fail alike,
                // and a resume would keep their error lines as finished. The job stops instead, before this record's
                // line, so a resume with a working model or server tags it. An output that holds no answer yet loses its job record, which
                // names the broken file or servers: the working ones may differ.
                if case .failure(let failure) = outcome, failure.stopsJob {
                    if !holdsAnswers { sink.removeJobRecord() }
                    let remedy = switch failure.code {
                    case TaggingFailure.modelUnavailable: "with a model that loads"
                    case TaggingFailure.serverRefused: "once a server accepts the requests (its key, --api-key-env; the model name, --endpoint-model)"
                    case TaggingFailure.serverBusy: "once a server has room"
                    default: "once a server answers"
                    }
                    // Only a job that writes a file can be resumed; on standard output, a pipe or a device it is run again.
                    let resumable = outputFile.map { InputFile.isRegularFile($0) } == true
                    let again = resumable ? "\(remedy), --resume goes on from there" : "run it again \(remedy)"
                    throw CommandFailure("""
                        \(failure.message)
                        The job stopped at record \(record.id), before its line; \(again).
                        """)
                }
                if case .success = outcome { holdsAnswers = true }
                try sink.write(TaggingOutput.line(for: record, outcome: outcome))
                if case .failure = outcome { failed += 1 }
                progress.advance()
            }
            progress.finish()
            sink.removeJobRecord()
            // Every record has its line either way; a script still has to learn that some of them are errors.
            if failed > 0 {
                let which = failed == 1 ? "1 record failed; its line" : "\(failed) records failed; their lines"
                Console.note("fm tag: \(which) in \(sink.name) \(failed == 1 ? "carries" : "carry") an \"error\"\n")
                throw ExitCode(2)
            }
        }
    }
}

/// Where `fm tag` writes lines: stdout, or a file (appended to after the finished part when resuming).
///
/// A file output is locked while the job writes it, so a second job given the same file stops instead of writing
/// over the first one's lines. Until every record has its line, a job record beside it
/// (``jobRecordPath(for:)``) holds the identity of the settings that wrote it, so a resume with other settings is
/// refused rather than mixing two jobs' answers in one file.
final class OutputSink {
    let handle: FileHandle
    /// Where the lines go, for messages.
    let name: String
    /// The job record beside a file output (or the file stdout is sent to), `nil` for a pipe, a terminal or a device.
    private let jobRecord: String?
    /// The file opened again to hold the job's lock when the lines go through stdout's descriptor.
    private let lock: FileHandle?
    /// The finished lines of the output: how many carry each id, whether each (in order, per id) is an error line,
    /// and the text it carries.
    let finished: Finished

    /// The finished lines of an output being resumed.
    typealias Finished = (ids: [String: Int], failed: [String: [Bool]], texts: [String: [String?]])

    /// Opens the output; when resuming, `check` sees the finished lines (and the output's name) first, and what it
    /// throws leaves the file untouched.
    ///
    /// - Parameter job: The identity of the job's settings, kept in the job record while the output is partial.
    init(path: String?, resume: Bool, job: String = "", schema: GenerationSchema? = nil,
         check: (String, Finished) throws -> Void = { _, _ in }) throws {
        // `-o /dev/stdout` (or the file stdout was sent to) is written through stdout itself: opening it again
        // would truncate a file the shell opened for appending, or one that already holds earlier output.
        let throughStandardOutput = path.map(InputFile.isStandardOutput) ?? false
        guard let path, !(throughStandardOutput && !resume) else {
            handle = FileHandle.standardOutput
            lock = nil
            name = path ?? "standard output"
            finished = ([:], [:], [:])
            // Stdout sent to a file (`fm tag … > out.jsonl`) gets the file's job record too, so a later
            // `--resume` of that file checks these settings.
            if let file = InputFile.standardOutputFile() {
                let record = Self.jobRecordPath(for: file)
                jobRecord = (try? Data(job.utf8).write(to: URL(fileURLWithPath: record), options: .atomic)) != nil ? record : nil
            } else {
                jobRecord = nil
            }
            return
        }
        name = path
        // `-o /dev/stdout` with stdout sent to a file resumes that file, so its job record is the file's own.
        let recordedPath = throughStandardOutput ? InputFile.standardOutputFile() : path
        let record = Self.jobRecordPath(for: recordedPath ?? path)
        do {
            // Opened in place rather than created anew: a pipe, a device or /dev/stdout can be the output too, and
            // an existing file keeps its inode, owner and mode. Locked before anything is read or cut, so a second
            // job cannot empty the file under a running one, and is told so rather than about the lines it read.
            // `-o /dev/stdout` resumed writes through stdout's own open file, whose offset the shell shares: a file
            // opened anew would leave the shell's offset at the start, and what it writes next (`{ fm tag …; echo; }
            // 1<> out`) would overwrite the lines.
            let descriptor = throughStandardOutput
                ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0) : open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { throw CommandFailure("Cannot write \(path): \(String(cString: strerror(errno)))") }
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            // The lock is held on an open file of the job's own: a lock on stdout's would be shared with the shell
            // and any other job started with that stdout, and would last as long as the shell keeps it open.
            let lockDescriptor = throughStandardOutput ? open(path, O_WRONLY | O_CLOEXEC) : descriptor
            lock = throughStandardOutput && lockDescriptor >= 0 ? FileHandle(fileDescriptor: lockDescriptor, closeOnDealloc: true) : nil
            var info = stat()
            let isFile = fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
            // A file system without locks (some network mounts) lets the job run unlocked, as before locks.
            if isFile, lockDescriptor >= 0, flock(lockDescriptor, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK {
                throw CommandFailure("Cannot write \(path): another fm tag is writing it. Wait for that job, or choose another --output.")
            }
            var validLength: Int?
            if resume, let existing = try Self.resumable(path) {
                let bytes = Array(existing)
                let (ids, failed, texts, length) = TaggingOutput.finishedRecords(in: bytes)
                // Resuming cuts the file after its finished lines: only a killed job's last line may go.
                if let line = TaggingOutput.strayLine(in: bytes, validLength: length) {
                    throw CommandFailure("""
                        Cannot resume \(path): its line \(line) is not a line fm tag writes, and resuming would remove it \
                        and every line after it. Choose another --output, or remove what is not fm tag output.
                        """)
                }
                // Settings are compared through the job record while the output is partial; a finished output has
                // none, so its results must at least have the shape this job's schema writes.
                if let schema, let (line, reason) = TaggingOutput.misfitResult(in: bytes, validLength: length, schema: schema) {
                    throw CommandFailure("""
                        Cannot resume \(path): line \(line) was written with another schema (\(reason)), and this job's \
                        answers would sit beside it. Resume with the settings that wrote it, or choose another --output.
                        """)
                }
                finished = (ids, failed, texts)
                try check(path, finished)
                validLength = length
            } else {
                finished = ([:], [:], [:])
            }
            // A record left by a job that stopped early names its settings; an output without one finished, or was
            // written before records were kept, and is resumed as it is. Read under the lock: a running job's
            // record is that job's.
            if let validLength, validLength > 0, let started = try? String(contentsOfFile: record, encoding: .utf8), started != job {
                throw CommandFailure("""
                    Cannot resume \(path): it was started with other settings (model or --endpoint servers and their model name, schema or preset, instructions, \
                    examples, generation options or quality switches; \(record) holds a digest of them), and its lines would sit \
                    beside answers made otherwise. Resume with the settings that started it, or choose another --output.
                    """)
            }
            if isFile {
                try handle.truncate(atOffset: UInt64(validLength ?? 0))
                try handle.seekToEnd()
            }
            // Not for a `/dev/stdout` whose file cannot be named. Best effort: a folder that takes no new files
            // still lets the job run, only without the check.
            if isFile, recordedPath != nil {
                try? Data(job.utf8).write(to: URL(fileURLWithPath: record), options: .atomic)
                jobRecord = record
            } else {
                jobRecord = nil
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("Cannot write \(path): \(InputFile.reason(error))")
        }
    }

    /// The job record of the output at `path`: a hidden file beside it, `.NAME.fm-job`.
    static func jobRecordPath(for path: String) -> String {
        // Beside the file itself, whatever link names it: the output named through a link is the same output.
        let url = URL(fileURLWithPath: InputFile.resolvingLinks(path))
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".fm-job").path
    }

    /// Removes the job record: once every record has its line (the output is whole), or when the output holds
    /// nothing the record's settings could be mixed with.
    func removeJobRecord() {
        if let jobRecord { try? FileManager.default.removeItem(atPath: jobRecord) }
    }

    /// The finished output to resume from: a regular file's bytes, `nil` when there is none (or the output is a
    /// pipe or device). A file that exists but cannot be read is an error: truncating it would throw away
    /// finished work.
    private static func resumable(_ path: String) throws -> Data? {
        // stat, not lstat: `-o /dev/stdout` with stdout sent to a file resumes that file.
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CommandFailure("Cannot read \(path) to resume it: \(InputFile.reason(error))")
        }
    }

    func write(_ line: String) throws {
        do {
            try handle.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            throw CommandFailure("Cannot write \(name): \(InputFile.reason(error))")
        }
    }
}
