package org.mcast4ai.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs commands on BMv2 {@code simple_switch}es through their thrift runtime, with {@code simple_switch_CLI}
 * (BMv2's own client: the lab needs no thrift or gRPC stack of its own). One CLI process per switch, kept: it
 * reads the switch's program once, then takes commands on its standard input; each command's answer is what the
 * CLI prints before its next prompt. A CLI that died (its switch restarted) is started again on the next call.
 */
public class Bmv2Cli implements AutoCloseable {
    private static final String PROMPT = "RuntimeCmd: ";

    private final Map<Integer, Session> sessions = new ConcurrentHashMap<>();

    private static final class Session {
        final Process process;
        final InputStream out;
        final OutputStream in;

        Session(int port) throws IOException {
            ProcessBuilder b = new ProcessBuilder("simple_switch_CLI", "--thrift-port", Integer.toString(port))
                    .redirectErrorStream(true);
            // its prompts come without a newline: unbuffered, or they wait in Python's buffer
            b.environment().put("PYTHONUNBUFFERED", "1");
            process = b.start();
            out = process.getInputStream();
            in = process.getOutputStream();
            String banner = read(1).get(0);
            if (!banner.contains("Control utility")) {
                throw new IOException("simple_switch_CLI on port " + port + ": " + banner.trim());
            }
        }

        // the text before each of the next n prompts
        List<String> read(int n) throws IOException {
            List<String> answers = new ArrayList<>(n);
            StringBuilder cur = new StringBuilder();
            byte[] buf = new byte[8192];
            while (answers.size() < n) {
                int k = out.read(buf);
                if (k < 0) {
                    throw new IOException("simple_switch_CLI ended: " + cur.toString().trim());
                }
                cur.append(new String(buf, 0, k, StandardCharsets.UTF_8));
                int at = cur.indexOf(PROMPT);
                while (answers.size() < n && at >= 0) {
                    answers.add(cur.substring(0, at));
                    cur.delete(0, at + PROMPT.length());
                    at = cur.indexOf(PROMPT);
                }
            }
            return answers;
        }
    }

    /**
     * @param thriftPort the switch's thrift port on loopback
     * @param commands   CLI commands, one a line
     * @return each command's output, in order
     * @throws IOException if the CLI cannot be run or does not answer every command
     */
    public List<String> run(int thriftPort, List<String> commands) throws IOException {
        if (commands.isEmpty()) {
            return List.of();
        }
        Session s = sessions.get(thriftPort);
        if (s == null || !s.process.isAlive()) {
            s = new Session(thriftPort);
            sessions.put(thriftPort, s);
        }
        synchronized (s) {
            try {
                s.in.write((String.join("\n", commands) + "\n").getBytes(StandardCharsets.UTF_8));
                s.in.flush();
                return s.read(commands.size());
            } catch (IOException e) {
                s.process.destroyForcibly();
                sessions.remove(thriftPort, s);
                throw e;
            }
        }
    }

    /**
     * Starts the CLIs of several switches at once (each reads its switch's program first, which takes seconds).
     *
     * @param ports the switches' thrift ports
     */
    public void connect(java.util.Collection<Integer> ports) {
        ports.parallelStream().forEach(p -> {
            try {
                sessions.computeIfAbsent(p, x -> {
                    try {
                        return new Session(x);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            } catch (java.io.UncheckedIOException e) {
                // the first write tries again and reports it
            }
        });
    }

    /**
     * @param answer one command's output
     * @return the error it reports, or null if it succeeded
     */
    static String error(String answer) {
        for (String line : answer.split("\n")) {
            String l = line.trim();
            if (l.startsWith("Error") || l.startsWith("Invalid") || l.contains("Exception") || l.startsWith("***")) {
                return l;
            }
        }
        return null;
    }

    /**
     * Ends the CLI of a switch that went away; the next call starts a new one.
     *
     * @param thriftPort the switch's thrift port
     */
    public void drop(int thriftPort) {
        Session s = sessions.remove(thriftPort);
        if (s != null) {
            s.process.destroy();
        }
    }

    /** Ends the CLI processes. */
    @Override
    public void close() {
        sessions.values().forEach(s -> s.process.destroy());
        sessions.clear();
    }
}
