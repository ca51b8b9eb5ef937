import NIOCore

/// The client's one connection, or the single connect attempt that all waiting requests share.
struct ConnectionPool {
    enum State {
        case idle
        case connecting(id: Int, future: EventLoopFuture<HTTP2Connection>, task: Task<Void, Never>)
        case connected(HTTP2Connection)
        case shutdown
    }

    var state = State.idle
    var nextConnectID = 0

    var currentConnection: HTTP2Connection? {
        if case .connected(let connection) = state { return connection }
        return nil
    }
}

extension HTTP2Client {
    private enum PoolAction {
        case use(HTTP2Connection)
        case wait(EventLoopFuture<HTTP2Connection>, retiring: HTTP2Connection?)
        case fail(HTTP2ClientError)
    }

    /// A connection accepting new streams: the current one, or a new one opened once for all waiters.
    func connection(deadline: NIODeadline) async throws -> HTTP2Connection {
        let action: PoolAction = pool.withLock { pool in
            switch pool.state {
            case .shutdown:
                return .fail(HTTP2ClientError(.shutdown))
            case .connecting(_, let future, _):
                return .wait(future, retiring: nil)
            case .connected(let connection) where connection.acceptsNewStreams:
                return .use(connection)
            case .connected(let stale):
                return .wait(startConnect(&pool), retiring: stale)
            case .idle:
                return .wait(startConnect(&pool), retiring: nil)
            }
        }
        switch action {
        case .use(let connection):
            return connection
        case .fail(let error):
            throw error
        case .wait(let future, let stale):
            // Streams still running on the old connection finish; it closes after the last one.
            stale?.retire()
            return try await future.get(
                deadline: deadline,
                timeoutError: HTTP2ClientError(
                    .timeout,
                    "\(endpoint.authority): still connecting when the request timed out"
                )
            )
        }
    }

    /// Starts the connect task; called with the pool locked.
    private func startConnect(_ pool: inout ConnectionPool) -> EventLoopFuture<HTTP2Connection> {
        let id = pool.nextConnectID
        pool.nextConnectID += 1
        let promise = eventLoopGroup.any().makePromise(of: HTTP2Connection.self)
        // Unstructured so that it does not belong to whichever request happened to start it: the
        // connect is shared. It ends within the connect timeout, and shutdown() cancels and awaits it.
        let task = Task { await self.runConnect(id: id, promise: promise) }
        pool.state = .connecting(id: id, future: promise.futureResult, task: task)
        return promise.futureResult
    }

    private func runConnect(id: Int, promise: EventLoopPromise<HTTP2Connection>) async {
        logger.debug("opening HTTP/2 connection")
        do {
            let connection = try await HTTP2Connection.connect(
                to: endpoint,
                sslContext: sslContext,
                connectTimeout: configuration.connectTimeout,
                eventLoopGroup: eventLoopGroup,
                logger: logger
            )
            let accepted = pool.withLock { pool in
                guard case .connecting(let current, _, _) = pool.state, current == id else { return false }
                pool.state = .connected(connection)
                return true
            }
            if accepted {
                promise.succeed(connection)
            } else {
                try? await connection.channel.close().get()
                promise.fail(HTTP2ClientError(.shutdown))
            }
        } catch {
            let wasShutdown = pool.withLock { pool in
                if case .connecting(let current, _, _) = pool.state, current == id {
                    pool.state = .idle
                }
                if case .shutdown = pool.state { return true }
                return false
            }
            logger.debug("HTTP/2 connect failed", metadata: ["error": "\(error)"])
            if wasShutdown {
                promise.fail(HTTP2ClientError(.shutdown))
            } else if let error = error as? HTTP2ClientError {
                promise.fail(error)
            } else {
                promise.fail(HTTP2ClientError(.connectFailed, "\(endpoint.authority): \(error)"))
            }
        }
    }
}
