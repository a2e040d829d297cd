import CFuse3
import Glibc

/// The table of low-level FUSE operations libfuse calls, each handing its request to the
/// `OnDemandFileSystem` the session was made with (its userdata). Operations not in the
/// table get `ENOSYS` from libfuse, and the kernel then does without them (locks are kept
/// by the kernel; `access` is checked by `default_permissions`).
enum FuseOperations {
    static func table() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { _, conn in
            guard let conn else { return }
            docsync_fuse_conn_want(conn, UInt32(FUSE_CAP_READDIRPLUS | FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_PARALLEL_DIROPS | FUSE_CAP_ATOMIC_O_TRUNC))
            // Every listing with attributes: `ls -l` and file managers then need no lookups.
            docsync_fuse_conn_unwant(conn, UInt32(FUSE_CAP_READDIRPLUS_AUTO))
            // Sequential reads ask for 1 MiB ahead (the kernel's default is 128 KiB).
            docsync_fuse_conn_max_readahead(conn, 1 << 20)
        }
        ops.lookup = { request, parent, name in
            fileSystem(of: request).lookup(request, parent: parent, name: String(cString: name!))
        }
        ops.forget = { request, id, count in
            fileSystem(of: request).nodes.forget(id, count)
            fuse_reply_none(request)
        }
        ops.forget_multi = { request, count, forgets in
            let fs = fileSystem(of: request)
            for index in 0..<count { fs.nodes.forget(forgets![index].ino, forgets![index].nlookup) }
            fuse_reply_none(request)
        }
        ops.getattr = { request, id, info in
            fileSystem(of: request).getattr(request, id: id, handle: info?.pointee.fh)
        }
        ops.setattr = { request, id, attributes, toSet, info in
            fileSystem(of: request).setattr(request, id: id, attributes: attributes!.pointee, toSet: toSet, handle: info?.pointee.fh)
        }
        ops.readlink = { request, id in fileSystem(of: request).readlink(request, id: id) }
        ops.mknod = { request, parent, name, mode, _ in
            fileSystem(of: request).mknod(request, parent: parent, name: String(cString: name!), mode: mode)
        }
        ops.mkdir = { request, parent, name, mode in
            fileSystem(of: request).mkdir(request, parent: parent, name: String(cString: name!), mode: mode)
        }
        ops.unlink = { request, parent, name in
            fileSystem(of: request).unlink(request, parent: parent, name: String(cString: name!))
        }
        ops.rmdir = { request, parent, name in
            fileSystem(of: request).rmdir(request, parent: parent, name: String(cString: name!))
        }
        ops.symlink = { request, target, parent, name in
            fileSystem(of: request).symlink(request, target: String(cString: target!), parent: parent, name: String(cString: name!))
        }
        ops.rename = { request, parent, name, newParent, newName, flags in
            fileSystem(of: request).rename(request, parent: parent, name: String(cString: name!), newParent: newParent,
                                   newName: String(cString: newName!), flags: flags)
        }
        // Hard links would make one file two items with one content: refused (SPEC §14).
        ops.link = { request, _, _, _ in fuse_reply_err(request, EPERM) }
        ops.open = { request, id, info in fileSystem(of: request).open(request, id: id, info: info) }
        ops.create = { request, parent, name, mode, info in
            fileSystem(of: request).create(request, parent: parent, name: String(cString: name!), mode: mode, info: info)
        }
        ops.read = { request, _, size, offset, info in
            fileSystem(of: request).read(request, size: size, offset: Int64(offset), handle: info!.pointee.fh)
        }
        ops.write = { request, _, bytes, size, offset, info in
            fileSystem(of: request).write(request, bytes: bytes, size: size, offset: Int64(offset), handle: info!.pointee.fh)
        }
        ops.flush = { request, id, info in fileSystem(of: request).flush(request, id: id, handle: info!.pointee.fh) }
        ops.release = { request, id, info in fileSystem(of: request).release(request, id: id, handle: info!.pointee.fh) }
        ops.fsync = { request, id, dataOnly, info in
            fileSystem(of: request).fsync(request, id: id, dataOnly: dataOnly != 0, handle: info!.pointee.fh)
        }
        ops.fallocate = { request, _, mode, offset, length, info in
            fileSystem(of: request).fallocate(request, mode: mode, offset: Int64(offset), length: Int64(length), handle: info!.pointee.fh)
        }
        ops.opendir = { request, id, info in fileSystem(of: request).opendir(request, id: id, info: info) }
        ops.readdir = { request, id, size, offset, info in
            fileSystem(of: request).readdir(request, id: id, size: size, offset: Int64(offset), handle: info!.pointee.fh, plus: false)
        }
        ops.readdirplus = { request, id, size, offset, info in
            fileSystem(of: request).readdir(request, id: id, size: size, offset: Int64(offset), handle: info!.pointee.fh, plus: true)
        }
        ops.releasedir = { request, _, info in fileSystem(of: request).releasedir(request, handle: info!.pointee.fh) }
        ops.fsyncdir = { request, _, _, _ in fuse_reply_err(request, 0) }
        ops.statfs = { request, _ in fileSystem(of: request).statfs(request) }
        ops.getxattr = { request, id, name, size in
            fileSystem(of: request).getxattr(request, id: id, name: String(cString: name!), size: size)
        }
        ops.listxattr = { request, id, size in fileSystem(of: request).listxattr(request, id: id, size: size) }
        ops.setxattr = { request, id, name, value, size, flags in
            fileSystem(of: request).setxattr(request, id: id, name: String(cString: name!), value: value, size: size, flags: flags)
        }
        ops.removexattr = { request, id, name in
            fileSystem(of: request).removexattr(request, id: id, name: String(cString: name!))
        }
        return ops
    }
}

/// The file system a request belongs to.
private func fileSystem(of request: fuse_req_t?) -> OnDemandFileSystem {
    Unmanaged<OnDemandFileSystem>.fromOpaque(fuse_req_userdata(request)!).takeUnretainedValue()
}
