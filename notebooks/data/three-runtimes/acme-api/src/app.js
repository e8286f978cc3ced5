export const health = () => ({ ok: true });
