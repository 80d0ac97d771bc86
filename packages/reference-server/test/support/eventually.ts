/** Retries a check until it passes (a server or Redis recovering on its own schedule); rethrows after `attempts`. */
export async function eventually<T>(check: () => Promise<T>, attempts = 150, pauseMs = 100): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await check();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
