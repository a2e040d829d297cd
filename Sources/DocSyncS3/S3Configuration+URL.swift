import Foundation

extension S3Configuration {
    /// A configuration from a location such as
    /// `s3://BUCKET?endpoint=http://127.0.0.1:8480&region=us-east-1` and credentials kept
    /// out of it.
    ///
    /// - `endpoint` defaults to AWS's `https://s3.REGION.amazonaws.com`, `region` to
    ///   `us-east-1`; other query parameters are refused (so a misspelt one is noticed).
    /// - Credentials come from `credentialsFile` when one is given (see `S3CredentialsFile`
    ///   for its lines), else from the environment: `S3_ACCESS_KEY` and `S3_SECRET_KEY`, or
    ///   else `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
    ///
    /// Throws `invalidConfiguration` saying what to fix: not an `s3://` URL, a bad bucket name,
    /// an unknown parameter, credentials in the URL, an unreadable credentials file, or
    /// credentials missing (naming the variables or lines looked for).
    public init(
        url: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        credentialsFile: String? = nil
    ) throws(S3Error) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "s3" else {
            throw S3Error(.invalidConfiguration, "\(url) is not an S3 location; write s3://BUCKET?endpoint=http://host:port&region=REGION")
        }
        guard components.user == nil, components.password == nil else {
            throw S3Error(.invalidConfiguration, "the S3 location has credentials in it; put them in a credentials file or the environment (S3_ACCESS_KEY, S3_SECRET_KEY) instead")
        }
        guard let bucket = components.host, !bucket.isEmpty else {
            throw S3Error(.invalidConfiguration, "\(url) names no bucket; write s3://BUCKET?endpoint=http://host:port")
        }
        guard components.path.isEmpty || components.path == "/" else {
            throw S3Error(.invalidConfiguration, "\(url) has a path after the bucket; write s3://BUCKET (a key prefix is not part of the location)")
        }
        guard components.port == nil else {
            throw S3Error(.invalidConfiguration, "\(url) has a port after the bucket; give the store's address as ?endpoint=http://host:port")
        }
        var endpoint: String?
        var region = "us-east-1"
        for item in components.queryItems ?? [] {
            switch item.name {
            case "endpoint": endpoint = item.value
            case "region": region = item.value ?? ""
            default:
                throw S3Error(.invalidConfiguration, "\(url) has the parameter \"\(item.name)\", which is not known; use endpoint= and region=")
            }
        }
        let endpointText = endpoint ?? "https://s3.\(region).amazonaws.com"
        guard let endpointURL = URL(string: endpointText) else {
            throw S3Error(.invalidConfiguration, "the endpoint \(endpointText) is not a URL; write endpoint=http://host:port")
        }
        let (accessKey, secretKey) = try Self.credentials(environment: environment, file: credentialsFile)
        try self.init(endpoint: endpointURL, region: region, bucket: bucket, accessKey: accessKey, secretKey: secretKey)
    }

    private static func credentials(environment: [String: String], file: String?) throws(S3Error) -> (String, String) {
        if let file {
            return try S3CredentialsFile.read(path: file)
        }
        for (accessName, secretName) in [("S3_ACCESS_KEY", "S3_SECRET_KEY"), ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")] {
            let access = environment[accessName].flatMap { $0.isEmpty ? nil : $0 }
            let secret = environment[secretName].flatMap { $0.isEmpty ? nil : $0 }
            switch (access, secret) {
            case let (access?, secret?): return (access, secret)
            case (nil, nil): continue
            case (nil, _): throw S3Error(.invalidConfiguration, "\(secretName) is set but \(accessName) is not; set both")
            case (_, nil): throw S3Error(.invalidConfiguration, "\(accessName) is set but \(secretName) is not; set both")
            }
        }
        throw S3Error(.invalidConfiguration, "no S3 credentials: give a credentials file, or set S3_ACCESS_KEY and S3_SECRET_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
    }
}
