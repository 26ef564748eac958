export const clean = () => new TextEncoder().encode('نص').length;
