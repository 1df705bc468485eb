/**
 * A resource's name as it goes into a composed title ("删除{{name}}…", "新建{{name}}"): Chinese text sets Latin words and
 * numbers apart from the characters around them by a space ("删除这 2 项", "APN 配置"), so a name that starts with one
 * ("APN 配置") is given that space after the verb ("删除 APN 配置"); other languages' templates space words themselves.
 */
export function inTitle(name: string, language: string): string {
  return language.startsWith('zh') && /^[A-Za-z0-9]/.test(name) ? ` ${name}` : name;
}
